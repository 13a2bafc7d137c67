"""Exact enumeration of activation regions by LP feasibility (HiGHS).

The activation region of a pattern a is R(a) = {x : z_i(x) > 0 for active i, z_i(x) <= 0 for
inactive i} (intersected with an optional box domain). Two definitions from the catalogue:

* non-empty activation regions: R(a) != {} ;
* full-dimensional activation regions: R(a) has non-empty interior.

Both are LPs: maximise a margin t (0 <= t <= 1) on the normalised inequalities that must be
strict; the region qualifies iff t* > tol. `enumerate_regions` extends patterns neuron by
neuron, layer by layer (an incremental hyperplane arrangement: a neuron of layer l is an affine
hyperplane once layers < l are fixed) and only extends feasible prefixes; a witness point of the
parent settles one child without an LP. `enumerate_regions_bruteforce` checks all 2^N patterns.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.optimize import linprog

from workers.methods.linregions.network import ReLUNetwork

Kind = Literal["nonempty", "full"]
TOL = 1e-9


@dataclass
class Cell:
    """A region found by enumeration: its pattern, H-representation and a witness point."""

    pattern: tuple[bool, ...]
    rows: np.ndarray  # (k, d) normals a_i of the region's pre-activation constraints z = a x + c
    consts: np.ndarray  # (k,)   offsets c_i
    active: np.ndarray  # (k,)   True where the region requires z > 0, False where z <= 0
    witness: np.ndarray  # a point in the region (interior point for full-dimensional cells)
    margin: float  # LP margin t* at the witness
    G: np.ndarray = field(default_factory=lambda: np.zeros(0))  # output map f = G x + g on the cell
    g: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass
class EnumerationStats:
    n_lp: int = 0
    n_nodes: int = 0


def _box_rows(d: int, box: float | None) -> tuple[np.ndarray, np.ndarray]:
    if box is None:
        return np.zeros((0, d)), np.zeros(0)
    return np.vstack([np.eye(d), -np.eye(d)]), np.full(2 * d, float(box))


def region_margin(
    rows: np.ndarray,
    consts: np.ndarray,
    active: np.ndarray,
    kind: Kind,
    box: float | None,
    stats: EnumerationStats | None = None,
) -> tuple[float, np.ndarray | None]:
    """Solve the margin LP; return (t*, witness) or (-1, None) when infeasible.

    Rows with a ~ 0 are constants: they are checked directly (z = c > 0 active, c <= 0 inactive).
    """
    norms = np.linalg.norm(rows, axis=1) if len(rows) else np.zeros(0)
    const = norms < 1e-12
    if np.any(const & active & (consts <= 0)) or np.any(const & ~active & (consts > 0)):
        return -1.0, None
    keep = ~const
    a, c, act, nrm = rows[keep], consts[keep], active[keep], norms[keep]
    d = rows.shape[1]
    # inequalities in the form  M [x; t] <= h
    sign = np.where(act, -1.0, 1.0)  # active: -z <= -t|a| ; inactive: z <= -t|a| (or 0)
    strict = act if kind == "nonempty" else np.ones_like(act)
    M = np.hstack([sign[:, None] * a, (strict * nrm)[:, None]])
    h = -sign * c
    Bm, Bh = _box_rows(d, box)
    if len(Bm):
        tcol = np.ones((len(Bm), 1)) if kind == "full" else np.zeros((len(Bm), 1))
        M = np.vstack([M, np.hstack([Bm, tcol])])
        h = np.concatenate([h, Bh])
    cost = np.zeros(d + 1)
    cost[-1] = -1.0
    bounds = [(None, None)] * d + [(0.0, 1.0)]
    if stats is not None:
        stats.n_lp += 1
    if len(M) == 0:
        return 1.0, np.zeros(d)
    res = linprog(cost, A_ub=M, b_ub=h, bounds=bounds, method="highs")
    if res.status != 0:
        return -1.0, None
    return float(res.x[-1]), res.x[:d]


def _witness_ok(
    x: np.ndarray, a: np.ndarray, c: float, active: bool, kind: Kind, parent_t: float
) -> float:
    """Margin the parent's witness keeps for the child's new constraint (<= 0: need an LP)."""
    z, nrm = a @ x + c, np.linalg.norm(a)
    if nrm < 1e-12:
        return parent_t if ((c > 0) == active) else -1.0
    if active:
        return min(parent_t, z / nrm) if z > 0 else -1.0
    if kind == "nonempty":
        return parent_t if z <= 0 else -1.0
    return min(parent_t, -z / nrm) if z < 0 else -1.0


def enumerate_regions(
    net: ReLUNetwork,
    kind: Kind = "full",
    box: float | None = None,
    stats: EnumerationStats | None = None,
) -> list[Cell]:
    """All non-empty (kind="nonempty") or full-dimensional (kind="full") activation regions."""
    if kind not in ("nonempty", "full"):
        raise ValueError(f"kind must be 'nonempty' or 'full', got {kind!r}")
    if box is not None and box <= 0:
        raise ValueError(f"box half-width must be positive, got {box}")
    stats = stats if stats is not None else EnumerationStats()
    d, widths = net.input_dim, net.widths
    cells: list[Cell] = []
    t0, x0 = region_margin(np.zeros((0, d)), np.zeros(0), np.zeros(0, bool), kind, box, stats)

    def rec(
        layer: int,
        pattern: list[bool],
        rows: list,
        consts: list,
        acts: list,
        x: np.ndarray,
        t: float,
        maps: tuple | None,
    ) -> None:
        stats.n_nodes += 1
        if layer == len(widths):
            _, (G, g) = net.layer_maps(np.array(pattern))
            cells.append(
                Cell(
                    tuple(pattern),
                    np.array(rows).reshape(-1, d),
                    np.array(consts),
                    np.array(acts, bool),
                    x,
                    t,
                    G,
                    g,
                )
            )
            return
        if maps is None:  # pre-activations of this layer are affine once earlier layers are fixed
            full = pattern + [False] * (net.n_neurons - len(pattern))
            A, c = net.layer_maps(np.array(full))[0][layer]
            maps = (A, c, 0)
        A, c, i = maps
        nxt = (layer + 1, None) if i + 1 == widths[layer] else (layer, (A, c, i + 1))
        for active in (True, False):
            m = _witness_ok(x, A[i], c[i], active, kind, t)
            new_rows, new_consts, new_acts = rows + [A[i]], consts + [c[i]], acts + [active]
            if m > TOL:
                rec(nxt[0], pattern + [active], new_rows, new_consts, new_acts, x, m, nxt[1])
                continue
            tt, xx = region_margin(
                np.array(new_rows), np.array(new_consts), np.array(new_acts, bool), kind, box, stats
            )
            if tt > TOL:
                rec(nxt[0], pattern + [active], new_rows, new_consts, new_acts, xx, tt, nxt[1])

    if t0 > TOL:
        rec(0, [], [], [], [], x0, t0, None)
    return cells


def enumerate_regions_bruteforce(
    net: ReLUNetwork,
    kind: Kind = "full",
    box: float | None = None,
    stats: EnumerationStats | None = None,
    max_neurons: int = 16,
) -> list[Cell]:
    """Check every one of the 2^N patterns with one LP each (no pruning)."""
    if net.n_neurons > max_neurons:
        raise ValueError(
            f"brute force over 2^{net.n_neurons} patterns exceeds max_neurons={max_neurons}"
        )
    stats = stats if stats is not None else EnumerationStats()
    cells: list[Cell] = []
    for bits in itertools.product((True, False), repeat=net.n_neurons):
        pattern = np.array(bits)
        maps, (G, g) = net.layer_maps(pattern)
        rows = np.vstack([A for A, _ in maps])
        consts = np.concatenate([c for _, c in maps])
        t, x = region_margin(rows, consts, pattern, kind, box, stats)
        stats.n_nodes += 1
        if t > TOL:
            cells.append(Cell(tuple(bits), rows, consts, pattern.copy(), x, t, G, g))
    return cells
