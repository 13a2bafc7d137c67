"""One entry point: count a ReLU network's linear regions under every definition."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Literal

from workers.methods.linregions.counting import (
    Cell,
    EnumerationStats,
    enumerate_regions,
    enumerate_regions_bruteforce,
)
from workers.methods.linregions.network import ReLUNetwork
from workers.methods.linregions.pieces import (
    adjacency,
    affine_groups,
    connected_components,
    maximal_convex_unions,
    min_convex_cover,
)

DEFINITIONS = (
    "nonempty",
    "full_dim",
    "convex_maximal",
    "convex_min_cover",
    "connected",
    "distinct_affine",
)


@dataclass
class RegionCounts:
    nonempty: int  # non-empty activation regions
    full_dim: int  # full-dimensional activation regions
    convex_maximal: int  # maximal convex unions of same-function cells (-1: not computed)
    convex_min_cover: int  # fewest convex pieces covering the domain (-1: not computed)
    connected: int  # maximal connected open pieces on which f is affine
    distinct_affine: int  # distinct affine functions
    convex_exact: bool = True
    n_lp: int = 0
    seconds: float = 0.0
    cells: list[Cell] = field(default_factory=list, repr=False)
    components: list[list[int]] = field(default_factory=list, repr=False)
    convex_cover: list[frozenset[int]] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict:
        out = asdict(self)
        for key in ("cells", "components", "convex_cover"):
            out.pop(key)
        return out


def count_linear_regions(
    net: ReLUNetwork,
    box: float | None = 3.0,
    algorithm: Literal["incremental", "bruteforce"] = "incremental",
    convex: bool = True,
) -> RegionCounts:
    """Exact counts for all definitions on R^d (box=None) or the box [-box, box]^d.

    Convex pieces need the box; with box=None (or convex=False) they are reported as -1."""
    if algorithm not in ("incremental", "bruteforce"):
        raise ValueError(f"algorithm must be 'incremental' or 'bruteforce', got {algorithm!r}")
    enum = enumerate_regions if algorithm == "incremental" else enumerate_regions_bruteforce
    stats = EnumerationStats()
    start = time.perf_counter()
    nonempty = enum(net, "nonempty", box, stats)
    cells = enum(net, "full", box, stats)
    adj = adjacency(net, cells, box)
    comps = connected_components(len(cells), adj)
    distinct = len(affine_groups(cells))
    cmax = cmin = -1
    exact, cover = True, []
    if convex and box is not None:
        unions, exact = maximal_convex_unions(net, cells, box, adj)
        cover = min_convex_cover(len(cells), unions)
        cmax, cmin = len(unions), len(cover)
    return RegionCounts(
        len(nonempty),
        len(cells),
        cmax,
        cmin,
        len(comps),
        distinct,
        exact,
        stats.n_lp,
        time.perf_counter() - start,
        cells,
        comps,
        cover,
    )
