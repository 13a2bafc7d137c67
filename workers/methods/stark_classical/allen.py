"""Allen's interval algebra (Allen 1983) with a numerical tolerance.

The 13 base relations, named as in STARK (allen_interval_algebra.py). Endpoints closer than
`eps` count as equal: STARK's prompts print intervals with 4 decimals, so two endpoints that
were equal before printing stay equal, and a tolerance well below 1e-4 separates the rest.
"""

from __future__ import annotations

from collections.abc import Callable

Interval = tuple[float, float]

RELATIONS = (
    "precedes",
    "is_preceded_by",
    "meets",
    "is_met_by",
    "overlaps_with",
    "is_overlapped_by",
    "starts",
    "is_started_by",
    "during",
    "contains",
    "finishes",
    "finished_by",
    "is_equal_to",
)


def _check(iv: Interval, name: str, eps: float) -> tuple[float, float]:
    a, b = float(iv[0]), float(iv[1])
    if a > b + eps:
        raise ValueError(f"{name}: interval start {a} is after its end {b}")
    return a, b


def relation(iv1: Interval, iv2: Interval, eps: float = 5e-5) -> str:
    """The unique Allen relation r such that `iv1 r iv2` holds (endpoints compared with eps)."""
    s1, e1 = _check(iv1, "iv1", eps)
    s2, e2 = _check(iv2, "iv2", eps)

    def cmp(a: float, b: float) -> int:
        return 0 if abs(a - b) <= eps else (-1 if a < b else 1)

    ss, ee, es, se = cmp(s1, s2), cmp(e1, e2), cmp(e1, s2), cmp(s1, e2)
    if ss == 0 and ee == 0:
        return "is_equal_to"
    if es < 0:
        return "precedes"
    if se > 0:
        return "is_preceded_by"
    if es == 0 and ss < 0:
        return "meets"
    if se == 0 and ss > 0:
        return "is_met_by"
    if ss == 0:
        return "starts" if ee < 0 else "is_started_by"
    if ee == 0:
        return "finishes" if ss > 0 else "finished_by"
    if ss > 0 and ee < 0:
        return "during"
    if ss < 0 and ee > 0:
        return "contains"
    return "overlaps_with" if ss < 0 else "is_overlapped_by"


def holds(name: str, iv1: Interval, iv2: Interval, eps: float = 5e-5) -> bool:
    """Does `iv1 <name> iv2` hold? Each relation is tested by its own definition (as STARK
    does), so for a degenerate interval (a point, e.g. a "touches" event) several may hold."""
    if name not in RELATIONS:
        raise ValueError(f"name: unknown Allen relation {name!r}")
    s1, e1 = _check(iv1, "iv1", eps)
    s2, e2 = _check(iv2, "iv2", eps)
    inverse = {
        "is_preceded_by": "precedes",
        "is_met_by": "meets",
        "is_overlapped_by": "overlaps_with",
        "is_started_by": "starts",
        "contains": "during",
        "finished_by": "finishes",
    }
    if name in inverse:
        return holds(inverse[name], iv2, iv1, eps)

    def eq(a: float, b: float) -> bool:
        return abs(a - b) <= eps

    def lt(a: float, b: float) -> bool:
        return a < b - eps

    return {
        "precedes": lambda: lt(e1, s2),
        "meets": lambda: eq(e1, s2),
        "overlaps_with": lambda: lt(s1, s2) and lt(s2, e1) and lt(e1, e2),
        "starts": lambda: eq(s1, s2) and lt(e1, e2),
        "during": lambda: lt(s2, s1) and lt(e1, e2),
        "finishes": lambda: eq(e1, e2) and lt(s2, s1),
        "is_equal_to": lambda: eq(s1, s2) and eq(e1, e2),
    }[name]()


def exact(name: str) -> Callable[[Interval, Interval], bool]:
    """The relation with exact comparisons (eps = 0), as STARK's ground truth computes it."""
    return lambda a, b: holds(name, a, b, eps=0.0)
