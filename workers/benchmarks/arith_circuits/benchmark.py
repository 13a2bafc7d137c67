"""Platform benchmark: area-delay Pareto fronts of multipliers / MACs under a wiring method.

Protocol: the design space is {compressor tree} x {final adder} for one operand width. The
method chooses the compressor-tree interconnect of every design point through
`method.wire(problem, rng, ctx) -> Wiring`; the benchmark builds the netlist, checks it
multiplies correctly (exhaustively for <= 8 bits, random vectors above; Icarus Verilog too when
installed), measures area and STA delay in the cell library's units, and scores the Pareto
front by its hypervolume w.r.t. a reference point fixed by the design space (1.1 x the largest
area, 1.1 x the largest default-wiring delay), identical for every method.
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
from pydantic import Field

from workers.benchmarks.arith_circuits.compressor import Wiring
from workers.benchmarks.arith_circuits.design import DesignSpec, build
from workers.benchmarks.arith_circuits.paper import ARITH_DAS_PAPER
from workers.benchmarks.arith_circuits.pareto import hypervolume_2d, pareto_front
from workers.benchmarks.arith_circuits.problem import WiringProblem
from workers.benchmarks.arith_circuits.verify import count_errors, test_vectors
from workers.benchmarks.arith_circuits.verilog import iverilog_available, iverilog_check, to_verilog
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)

TreeName = Literal["wallace", "dadda"]
AdderName = Literal["ripple", "sklansky", "kogge_stone", "brent_kung"]


class ArithWiringMethod(Method):
    """Interface of the methods on this benchmark."""

    benchmarks = ("arith-multiplier",)
    paper = ARITH_DAS_PAPER

    def wire(self, problem: WiringProblem, rng: np.random.Generator, ctx: RunContext) -> Wiring:
        raise NotImplementedError


class ArithConfig(PluginConfig):
    bits: int = Field(
        8, ge=4, le=32, description="Operand width N of the N x N unsigned multiplier / MAC."
    )
    unit: Literal["multiplier", "mac"] = Field(
        "multiplier",
        description="multiplier: a*b; mac: a*b + c modulo 2^(2N) (c enters the compressor tree).",
    )
    trees: list[TreeName] = Field(
        ["wallace", "dadda"],
        min_length=1,
        max_length=2,
        description="Compressor-tree allocations in the design space.",
    )
    adders: list[AdderName] = Field(
        ["ripple", "sklansky"],
        min_length=1,
        max_length=4,
        description="Final carry-propagate adders in the design space.",
    )
    random_vectors: int = Field(
        2000,
        ge=100,
        le=1_000_000,
        description="Random test vectors per design above 8 bits (8 bits and below: exhaustive).",
    )
    iverilog: bool = Field(
        True, description="Also simulate each design's Verilog with Icarus Verilog when installed."
    )
    iverilog_max_vectors: int = Field(
        70_000,
        ge=100,
        le=1_000_000,
        description="At most this many vectors go through Icarus (first ones of the set).",
    )


@register_benchmark
class ArithMultiplierBenchmark(Benchmark):
    name = "arith-multiplier"
    title = "Arith-DAS: multiplier / MAC compressor-tree interconnect"
    description = __doc__ or ""
    paper = ARITH_DAS_PAPER
    Config = ArithConfig
    datasets = (
        DatasetSpec(
            "arith-design-space",
            "generator",
            "Generated N x N multipliers / MACs: AND-array partial products, Wallace/Dadda trees, prefix adders.",
        ),
    )
    metrics = (
        MetricSpec(
            "hypervolume",
            "max",
            "area*delay units",
            primary=True,
            description="Hypervolume of the area-delay Pareto front w.r.t. the design space's reference point.",
        ),
        MetricSpec(
            "hypervolume_norm", "max", "", description="Hypervolume divided by the reference box."
        ),
        MetricSpec("min_delay", "min", "delay units", description="Fastest design's STA delay."),
        MetricSpec(
            "mean_delay", "min", "delay units", description="Mean STA delay over the design points."
        ),
        MetricSpec("min_area", "min", "area units", description="Smallest design's area."),
        MetricSpec("pareto_points", "max", "", description="Designs on the Pareto front."),
        MetricSpec(
            "functional_errors",
            "min",
            "vectors",
            description="Mismatching test vectors over all designs (must be 0).",
        ),
        MetricSpec(
            "wire_seconds", "min", "s", description="Time the method spent choosing interconnect."
        ),
    )

    def run(self, ctx: RunContext, method: Method) -> None:
        if not isinstance(method, ArithWiringMethod):
            raise TypeError(f"method {method.name!r} does not implement ArithWiringMethod.wire")
        cfg: ArithConfig = self.config  # type: ignore[assignment]
        rng = np.random.default_rng(ctx.seed)
        specs = [
            DesignSpec(cfg.bits, cfg.unit == "mac", t, a) for t in cfg.trees for a in cfg.adders
        ]
        use_iverilog = cfg.iverilog and iverilog_available()
        if cfg.iverilog and not use_iverilog:
            ctx.log(
                "iverilog not on PATH: functional checks use the project's bit-level simulator only"
            )
        rows, errors_total, wire_s, ref_delay = [], 0, 0.0, 0.0
        total = len(specs)
        for k, spec in enumerate(specs):
            ctx.check_cancelled()
            problem = WiringProblem(spec)
            ref_delay = max(ref_delay, problem.delay(problem.identity()))
            t0 = time.perf_counter()
            wiring = method.wire(problem, np.random.default_rng(rng.integers(2**63)), ctx)
            wire_s += time.perf_counter() - t0
            net = build(spec, wiring, problem.library)
            vectors, expected, exhaustive = test_vectors(spec, cfg.random_vectors, rng)
            errors = count_errors(net, vectors, expected)
            iv_errors = None
            if use_iverilog:
                m = min(len(expected), cfg.iverilog_max_vectors)
                iv_errors = iverilog_check(
                    net,
                    {b: v[:m] for b, v in vectors.items()},
                    expected[:m],
                    module=spec.label.replace("-", "_"),
                )
                errors += iv_errors
            errors_total += errors
            row = {
                "design": spec.label,
                "tree": spec.tree,
                "adder": spec.adder,
                "area": net.area(),
                "delay": net.delay(),
                "errors": errors,
                "vectors": int(len(expected)),
                "exhaustive": exhaustive,
                "iverilog_errors": iv_errors,
                "cells": net.cell_counts(),
            }
            rows.append(row)
            ctx.log(
                f"{spec.label}: area={row['area']:.1f} delay={row['delay']:.2f} errors={errors} "
                f"({'exhaustive' if exhaustive else 'random'} {len(expected)} vectors"
                f"{', iverilog' if iv_errors is not None else ''})"
            )
            ctx.log_metrics(k, area=row["area"], delay=row["delay"])
            ctx.save_artifact(
                f"verilog/{spec.label}.v", to_verilog(net, spec.label.replace("-", "_")).encode()
            )
            ctx.progress(k + 1, total, spec.label)
        pts = np.array([[r["area"], r["delay"]] for r in rows])
        ref = (1.1 * float(pts[:, 0].max()), 1.1 * ref_delay)
        hv = hypervolume_2d(pts, ref)
        front = pareto_front(pts)
        ctx.log_summary(
            hypervolume=hv,
            hypervolume_norm=hv / (ref[0] * ref[1]),
            min_delay=float(pts[:, 1].min()),
            mean_delay=float(pts[:, 1].mean()),
            min_area=float(pts[:, 0].min()),
            pareto_points=len(front),
            functional_errors=errors_total,
            wire_seconds=wire_s,
        )
        ctx.save_artifact(
            "designs.json",
            {"reference_point": ref, "designs": rows, "pareto": [rows[i]["design"] for i in front]},
        )
        ctx.save_artifact("pareto.plotly.json", pareto_figure(rows, front, ref, method.name))


def pareto_figure(rows: list[dict], front: np.ndarray, ref: tuple[float, float], label: str):
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[r["area"] for r in rows],
            y=[r["delay"] for r in rows],
            mode="markers",
            text=[r["design"] for r in rows],
            name="designs",
        )
    )
    fr = [rows[i] for i in front]
    xs = [r["area"] for r in fr] + [ref[0]]
    ys = [r["delay"] for r in fr]
    fig.add_trace(
        go.Scatter(
            x=[x for pair in zip(xs[:-1], xs[1:], strict=False) for x in pair],
            y=[y for y in ys for _ in range(2)],
            mode="lines",
            name="Pareto front",
            line={"shape": "linear"},
        )
    )
    fig.add_trace(
        go.Scatter(x=[ref[0]], y=[ref[1]], mode="markers", marker={"symbol": "x"}, name="reference")
    )
    fig.update_layout(
        title=f"Area-delay Pareto front ({label})",
        xaxis_title="area (units)",
        yaxis_title="delay (units)",
    )
    return fig
