"""Linear regions defined through the function f rather than the activation pattern.

Starting from the full-dimensional activation cells (counting.py), whose closures cover the
domain and on each of which f is affine (f = G x + g):

* distinct affine functions: the number of different (G, g) over the cells;
* connected pieces: maximal connected open sets on which f is affine. Two cells with the same
  (G, g) belong to one piece iff they are joined by a chain of cells of that function sharing a
  (d-1)-dimensional facet (an open set cannot pass through lower-dimensional contacts, because
  cells of other functions surround them);
* convex pieces: maximal convex unions of cells with one affine function (a union of polytopes
  is convex iff the volume of its convex hull equals the sum of their volumes), and the minimum
  number of them that covers the domain (a set-cover MILP, HiGHS). Needs a bounded box domain.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import LinearConstraint, linprog, milp
from scipy.spatial import ConvexHull, HalfspaceIntersection

from workers.methods.linregions.counting import TOL, Cell
from workers.methods.linregions.network import ReLUNetwork


def affine_key(cell: Cell, decimals: int = 8) -> tuple:
    """Hashable rounded (G, g) identifying the cell's affine function."""
    return tuple(np.round(np.concatenate([cell.G.ravel(), cell.g.ravel()]), decimals) + 0.0)


def affine_groups(cells: list[Cell]) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = {}
    for i, cell in enumerate(cells):
        groups.setdefault(affine_key(cell), []).append(i)
    return groups


def _same_hyperplane(a1: np.ndarray, c1: float, a2: np.ndarray, c2: float) -> bool:
    n1, n2 = np.linalg.norm(a1), np.linalg.norm(a2)
    if n1 < 1e-12 or n2 < 1e-12:
        return False
    u, v = np.append(a1, c1) / n1, np.append(a2, c2) / n2
    return bool(np.allclose(u, v, atol=1e-9) or np.allclose(u, -v, atol=1e-9))


def facet_adjacent(net: ReLUNetwork, ci: Cell, cj: Cell, box: float | None) -> bool:
    """True iff the closures of two full-dimensional cells share a (d-1)-dimensional facet."""
    diff = [k for k in range(len(ci.pattern)) if ci.pattern[k] != cj.pattern[k]]
    if not diff:
        return False
    a, c = ci.rows[diff[0]], ci.consts[diff[0]]
    if not all(_same_hyperplane(a, c, ci.rows[k], ci.consts[k]) for k in diff):
        return False  # crossing one hyperplane flips only the neurons that share it
    nrm = np.linalg.norm(a)
    others = [
        k for k in range(len(ci.rows)) if not _same_hyperplane(a, c, ci.rows[k], ci.consts[k])
    ]
    d = len(a)
    # maximise t: a x + c = 0 and every other (non-constant) constraint of ci holds with margin t
    M, h = [], []
    for k in others:
        ak, ck, nk = ci.rows[k], ci.consts[k], np.linalg.norm(ci.rows[k])
        if nk < 1e-12:
            continue
        sgn = -1.0 if ci.active[k] else 1.0
        M.append(np.append(sgn * ak, nk))
        h.append(-sgn * ck)
    if box is not None:
        for j in range(d):
            for sgn in (1.0, -1.0):
                e = np.zeros(d)
                e[j] = sgn
                M.append(np.append(e, 1.0))
                h.append(box)
    cost = np.zeros(d + 1)
    cost[-1] = -1.0
    res = linprog(
        cost,
        A_ub=np.array(M) if M else None,
        b_ub=np.array(h) if h else None,
        A_eq=np.append(a, 0.0)[None, :],
        b_eq=[-c],
        bounds=[(None, None)] * d + [(0.0, 1.0)],
        method="highs",
    )
    if res.status != 0 or res.x[-1] <= TOL:
        return False
    x, t = res.x[:d], res.x[-1]
    outward = (-a if ci.active[diff[0]] else a) / nrm
    probe = x + 1e-3 * min(t, 1.0) * outward
    return tuple(net.patterns(probe)[0]) == tuple(cj.pattern)


def adjacency(net: ReLUNetwork, cells: list[Cell], box: float | None) -> dict[int, set[int]]:
    """Facet adjacency between cells that carry the same affine function."""
    adj: dict[int, set[int]] = {i: set() for i in range(len(cells))}
    for members in affine_groups(cells).values():
        for i, j in itertools.combinations(members, 2):
            if facet_adjacent(net, cells[i], cells[j], box):
                adj[i].add(j)
                adj[j].add(i)
    return adj


def connected_components(n: int, adj: dict[int, set[int]]) -> list[list[int]]:
    seen, comps = set(), []
    for start in range(n):
        if start in seen:
            continue
        stack, comp = [start], []
        seen.add(start)
        while stack:
            u = stack.pop()
            comp.append(u)
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        comps.append(sorted(comp))
    return comps


def cell_vertices(cell: Cell, box: float) -> np.ndarray:
    """Vertices of the cell's closure intersected with the box [-box, box]^d."""
    d = len(cell.witness)
    halfspaces = []
    for a, c, act in zip(cell.rows, cell.consts, cell.active, strict=True):
        if np.linalg.norm(a) < 1e-12:
            continue
        halfspaces.append(np.append(-a, -c) if act else np.append(a, c))  # rows of  A x + b <= 0
    for j in range(d):
        for sgn in (1.0, -1.0):
            e = np.zeros(d)
            e[j] = sgn
            halfspaces.append(np.append(e, -box))
    H = np.array(halfspaces)
    if d == 1:
        lo = max([-hb / ha for ha, hb in H if ha < 0], default=-box)
        hi = min([-hb / ha for ha, hb in H if ha > 0], default=box)
        return np.array([[lo], [hi]])
    return HalfspaceIntersection(H, cell.witness).intersections


def _volume(points: np.ndarray) -> float:
    if points.shape[1] == 1:
        return float(points.max() - points.min())
    return float(ConvexHull(points).volume)


def maximal_convex_unions(
    net: ReLUNetwork,
    cells: list[Cell],
    box: float,
    adj: dict[int, set[int]] | None = None,
    exhaustive_limit: int = 12,
) -> tuple[list[frozenset[int]], bool]:
    """Maximal convex unions of same-function cells; returns (unions, exact).

    Components with <= exhaustive_limit cells are searched exhaustively (every connected subset);
    larger ones by growing convex unions one adjacent cell at a time (exact=False then)."""
    if box is None or box <= 0:
        raise ValueError("convex pieces need a bounded box domain (box > 0)")
    adj = adj if adj is not None else adjacency(net, cells, box)
    verts = [cell_vertices(c, box) for c in cells]
    vols = [_volume(v) for v in verts]
    exact = True

    def convex(subset: frozenset[int]) -> bool:
        if len(subset) == 1:
            return True
        pts = np.vstack([verts[i] for i in subset])
        total = sum(vols[i] for i in subset)
        return abs(_volume(pts) - total) <= 1e-7 * max(1.0, total)

    unions: list[frozenset[int]] = []
    for comp in connected_components(len(cells), adj):
        convex_sets: list[frozenset[int]] = []
        if len(comp) <= exhaustive_limit:
            for r in range(1, len(comp) + 1):
                for sub in itertools.combinations(comp, r):
                    fs = frozenset(sub)
                    if _is_connected(fs, adj) and convex(fs):
                        convex_sets.append(fs)
        else:
            exact = False
            frontier = [frozenset([i]) for i in comp]
            seen = set(frontier)
            while frontier:
                convex_sets.extend(frontier)
                nxt = []
                for fs in frontier:
                    for v in set().union(*(adj[u] for u in fs)) - fs:
                        g = fs | {v}
                        if g not in seen:
                            seen.add(g)
                            if convex(g):
                                nxt.append(g)
                frontier = nxt
        unions.extend(fs for fs in convex_sets if not any(fs < other for other in convex_sets))
    return unions, exact


def _is_connected(subset: frozenset[int], adj: dict[int, set[int]]) -> bool:
    start = next(iter(subset))
    seen, stack = {start}, [start]
    while stack:
        u = stack.pop()
        for v in adj[u] & subset:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == len(subset)


def min_convex_cover(n_cells: int, unions: list[frozenset[int]]) -> list[frozenset[int]]:
    """A fewest-element set of convex unions covering every cell (set-cover MILP, HiGHS)."""
    if not unions:
        return []
    A = np.zeros((n_cells, len(unions)))
    for j, fs in enumerate(unions):
        A[list(fs), j] = 1.0
    res = milp(
        np.ones(len(unions)),
        integrality=np.ones(len(unions)),
        bounds=(0, 1),
        constraints=LinearConstraint(A, 1, np.inf),
    )
    if res.x is None:
        raise RuntimeError(f"set-cover MILP failed: {res.message}")
    return [unions[j] for j in np.flatnonzero(res.x > 0.5)]
