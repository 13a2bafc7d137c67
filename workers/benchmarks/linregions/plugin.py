"""Benchmark `linregions-counting`: count linear regions of small ReLU networks per definition.

Protocol: random He-initialised networks of growing width (fixed depth and input dimension),
`n_nets` per size, plus the hand-built networks of examples.py on which definitions disagree.
The method counts regions for every definition it supports on the box [-box, box]^d; the
reference is the exact incremental counter. Scored: relative error against the reference on
the definitions every method reports (full-dimensional activation regions, connected pieces,
distinct affine functions), agreement with the hand-derived example counts, and run time.
"""

from __future__ import annotations

import time

import numpy as np
from pydantic import Field

from workers.benchmarks.linregions.paper import LINREGIONS_PAPER
from workers.benchmarks.linregions.viz import region_figure, runtime_figure
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)
from workers.methods.linregions.examples import EXAMPLES, EXPECTED
from workers.methods.linregions.network import ReLUNetwork
from workers.methods.linregions.regions import DEFINITIONS, count_linear_regions

SCORED = ("full_dim", "connected", "distinct_affine")


class LinRegionsConfig(PluginConfig):
    input_dim: int = Field(
        2, ge=1, le=6, description="Input dimension d (region plots need d = 2)."
    )
    depth: int = Field(2, ge=1, le=5, description="Number of hidden layers.")
    width_min: int = Field(2, ge=1, le=64, description="Smallest hidden width.")
    width_max: int = Field(4, ge=1, le=64, description="Largest hidden width (sizes grow by one).")
    n_nets: int = Field(2, ge=1, le=100, description="Random networks per size.")
    box: float = Field(3.0, gt=0.0, le=1e4, description="Domain [-box, box]^d.")
    plot_resolution: int = Field(
        150, ge=20, le=1000, description="Pixels per axis of the region plots."
    )


@register_benchmark
class LinRegionsBenchmark(Benchmark):
    name = "linregions-counting"
    title = "Counting linear regions of ReLU networks"
    description = (
        "Counts of non-empty / full-dimensional activation regions, convex and connected pieces and "
        "distinct affine functions for small random and hand-built ReLU networks, with run time."
    )
    paper = LINREGIONS_PAPER
    Config = LinRegionsConfig
    datasets = (
        DatasetSpec("linregions-random-relu", "generator", "He-initialised random ReLU networks."),
        DatasetSpec(
            "linregions-examples", "bundled", "Hand-built networks separating the definitions."
        ),
    )
    metrics = (
        MetricSpec(
            "rel_error",
            "min",
            "",
            primary=True,
            description="Mean |count - exact| / exact over random networks and the definitions "
            "full_dim, connected, distinct_affine.",
        ),
        MetricSpec(
            "examples_correct",
            "max",
            "fraction",
            description="Fraction of hand-derived example counts reproduced (definitions the method reports).",
        ),
        MetricSpec("seconds_per_net", "min", "s", description="Mean wall time per random network."),
        MetricSpec(
            "lp_per_net", "min", "", description="Mean number of LPs solved per random network."
        ),
        MetricSpec(
            "mean_full_dim",
            "max",
            "regions",
            description="Mean full-dimensional activation regions.",
        ),
        MetricSpec(
            "mean_nonempty",
            "max",
            "regions",
            description="Mean non-empty activation regions (-1: n/a).",
        ),
        MetricSpec("mean_connected", "max", "regions", description="Mean connected affine pieces."),
        MetricSpec(
            "mean_distinct_affine",
            "max",
            "functions",
            description="Mean distinct affine functions.",
        ),
        MetricSpec(
            "mean_convex_min_cover",
            "max",
            "regions",
            description="Mean convex pieces, min cover (-1: n/a).",
        ),
    )

    def run(self, ctx: RunContext, method: Method) -> None:
        cfg = self.config
        if cfg.width_min > cfg.width_max:
            raise ValueError(f"width_min={cfg.width_min} exceeds width_max={cfg.width_max}")
        rng = np.random.default_rng(ctx.seed)
        widths = list(range(cfg.width_min, cfg.width_max + 1))
        total = len(widths) * cfg.n_nets + len(EXAMPLES)
        done = 0
        ctx.progress(0, total, "starting")
        errors, secs, lps, sizes, size_secs, ref_secs = [], [], [], [], [], []
        sums = {k: [] for k in DEFINITIONS}
        first = None
        for step, w in enumerate(widths):
            step_secs, step_ref = [], []
            for _ in range(cfg.n_nets):
                ctx.check_cancelled()
                net = ReLUNetwork.random(cfg.input_dim, [w] * cfg.depth, rng)
                start = time.perf_counter()
                got = method.count(net, cfg.box)
                step_secs.append(time.perf_counter() - start)
                ref = count_linear_regions(net, cfg.box, "incremental", convex=False)
                step_ref.append(ref.seconds)
                errors.extend(
                    abs(got[k] - getattr(ref, k)) / max(getattr(ref, k), 1) for k in SCORED
                )
                lps.append(got["n_lp"])
                for k in DEFINITIONS:
                    sums[k].append(got[k])
                if first is None:
                    first = (net, ref)
                done += 1
                ctx.progress(done, total, f"width {w}")
            secs.extend(step_secs)
            sizes.append(w * cfg.depth)
            size_secs.append(float(np.mean(step_secs)))
            ref_secs.append(float(np.mean(step_ref)))
            ctx.log_metrics(
                step,
                hidden_neurons=w * cfg.depth,
                seconds=size_secs[-1],
                full_dim=float(np.mean(sums["full_dim"][-cfg.n_nets :])),
            )
        correct, checked = 0, 0
        example_table = {}
        for name, build in EXAMPLES.items():
            ctx.check_cancelled()
            got = method.count(build(), 3.0)
            example_table[name] = {k: got[k] for k in DEFINITIONS} | {
                "expected": dict(zip(DEFINITIONS, EXPECTED[name], strict=True))
            }
            for k, exp in zip(DEFINITIONS, EXPECTED[name], strict=True):
                if exp is not None and got[k] >= 0:
                    checked += 1
                    correct += int(got[k] == exp)
            done += 1
            ctx.progress(done, total, f"example {name}")
        ctx.log_summary(
            rel_error=float(np.mean(errors)),
            examples_correct=correct / max(checked, 1),
            seconds_per_net=float(np.mean(secs)),
            lp_per_net=float(np.mean(lps)),
            **{
                f"mean_{k}": float(np.mean(sums[k]))
                for k in (
                    "full_dim",
                    "nonempty",
                    "connected",
                    "distinct_affine",
                    "convex_min_cover",
                )
            },
        )
        ctx.save_artifact("examples", example_table)
        ctx.save_artifact(
            "runtime",
            runtime_figure(
                sizes,
                {method.name: size_secs, "exact reference (no convex)": ref_secs},
                f"Counting time vs size (depth {cfg.depth}, d={cfg.input_dim})",
            ),
        )
        if cfg.input_dim == 2:
            for name, build in EXAMPLES.items():
                net = build()
                ctx.save_artifact(
                    f"regions_{name}",
                    region_figure(
                        net,
                        count_linear_regions(net, 3.0),
                        3.0,
                        cfg.plot_resolution,
                        f"Example: {name}",
                    ),
                )
            net, _ = first
            ctx.save_artifact(
                "regions_random",
                region_figure(
                    net,
                    count_linear_regions(net, cfg.box),
                    cfg.box,
                    cfg.plot_resolution,
                    "Random network",
                ),
            )
