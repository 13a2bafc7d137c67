"""Platform glue: region counters for the `linregions-counting` benchmark.

Interface the benchmark calls:  method.count(net, box) -> dict with one entry per definition
in regions.DEFINITIONS (-1 where the method cannot compute it) and "n_lp".
"""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.linregions.paper import LINREGIONS_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.linregions.network import ReLUNetwork
from workers.methods.linregions.regions import DEFINITIONS, count_linear_regions
from workers.methods.linregions.sampling import grid_counts

BENCH = "linregions-counting"


class ExactConfig(PluginConfig):
    convex: bool = Field(
        True, description="Also count convex pieces (vertex enumeration and volumes; box only)."
    )


@register_method
class IncrementalCounter(Method):
    name = "linregions-incremental"
    title = "Exact counting: incremental arrangement + HiGHS LPs"
    description = (
        "Extends activation patterns neuron by neuron, layer by layer, keeping only LP-feasible "
        "prefixes; then facet adjacency, affine classes and convex unions of the cells."
    )
    benchmarks = (BENCH,)
    paper = LINREGIONS_PAPER
    Config = ExactConfig

    def count(self, net: ReLUNetwork, box: float | None) -> dict[str, float]:
        r = count_linear_regions(net, box, "incremental", convex=self.config.convex)
        return {**{k: getattr(r, k) for k in DEFINITIONS}, "n_lp": r.n_lp}


@register_method
class BruteForceCounter(Method):
    name = "linregions-bruteforce"
    title = "Exact counting: all 2^N patterns"
    description = "One LP per activation pattern (no pruning); same post-processing as the incremental counter."
    benchmarks = (BENCH,)
    is_baseline = True
    paper = LINREGIONS_PAPER
    Config = ExactConfig

    def count(self, net: ReLUNetwork, box: float | None) -> dict[str, float]:
        r = count_linear_regions(net, box, "bruteforce", convex=self.config.convex)
        return {**{k: getattr(r, k) for k in DEFINITIONS}, "n_lp": r.n_lp}


class GridConfig(PluginConfig):
    resolution: int = Field(
        300, ge=10, le=4000, description="Grid points per input axis (input_dim <= 3)."
    )


@register_method
class GridCounter(Method):
    name = "linregions-grid"
    title = "Grid sampling estimate"
    description = (
        "Labels a regular grid by activation pattern and affine function; counts labels and "
        "grid-connected components (misses thin regions and lower-dimensional ones)."
    )
    benchmarks = (BENCH,)
    is_baseline = True
    paper = LINREGIONS_PAPER
    Config = GridConfig

    def count(self, net: ReLUNetwork, box: float | None) -> dict[str, float]:
        if box is None:
            raise ValueError("grid sampling needs a bounded box domain")
        est = grid_counts(net, box, self.config.resolution)
        return {
            "nonempty": -1,
            "full_dim": est["full_dim"],
            "convex_maximal": -1,
            "convex_min_cover": -1,
            "connected": est["connected"],
            "distinct_affine": est["distinct_affine"],
            "n_lp": 0,
        }
