"""A test-only plugin that exercises the platform's mechanics: progress, curves, logs,
artifacts, cancellation, failure and slow runs. Loaded through CRUCIBLE_PLUGIN_MODULES."""

from __future__ import annotations

import time

from pydantic import Field

from workers.core import (
    Benchmark,
    Method,
    MetricSpec,
    Paper,
    PluginConfig,
    register_benchmark,
    register_method,
)

PROBE_PAPER = Paper(
    key="platform-probe",
    title="Platform probe (test fixture)",
    authors=("Crucible",),
    venue="tests",
    year=2026,
    abstract="Exercises the run lifecycle.",
    headline_claim="probe_fast has lower loss than probe_slow",
    claim_benchmark="probe",
    claim_method="probe_fast",
    claim_baseline="probe_slow",
    claim_metric="loss",
)


def hidden_marker(seed: int) -> str:
    return f"HIDDEN-GROUND-TRUTH-{seed * 7919 + 104729}"


class ProbeConfig(PluginConfig):
    steps: int = Field(20, ge=1, le=100000, description="number of steps")
    sleep: float = Field(0.0, ge=0, le=10, description="seconds to sleep per step")
    fail_at: int = Field(-1, ge=-1, description="raise at this step (-1: never)")
    artifact: bool = Field(False, description="save a Plotly figure at the end")
    hidden_truth: bool = Field(False, description="keep a hidden ground truth (private artifact)")
    nan_metric: bool = Field(False, description="also log a NaN and an infinite value")


@register_benchmark
class ProbeBenchmark(Benchmark):
    name = "probe"
    title = "Probe"
    description = "Test fixture benchmark."
    paper = PROBE_PAPER
    Config = ProbeConfig
    metrics = (MetricSpec("loss", goal="min", primary=True), MetricSpec("score", goal="max"))

    @classmethod
    def leaderboard_figure(cls, board):
        import plotly.graph_objects as go

        rows = board["rows"]
        return go.Figure(
            go.Bar(x=[r["method"] for r in rows], y=[r["metrics"]["loss"]["mean"] for r in rows])
        )

    def run(self, ctx, method):
        cfg = self.config
        for step in range(1, cfg.steps + 1):
            ctx.check_cancelled()
            if step == cfg.fail_at:
                raise ValueError(f"probe failure at step {step}")
            loss = method.loss(step, ctx.seed)
            ctx.log_metrics(
                step,
                loss=loss,
                **({"odd": float("nan"), "huge": float("inf")} if cfg.nan_metric else {}),
            )
            ctx.progress(step, cfg.steps, f"step {step}")
            if step % 5 == 0:
                ctx.log(f"step {step} loss {loss:.4f}")
            if cfg.sleep:
                time.sleep(cfg.sleep)
        if cfg.artifact:
            import plotly.graph_objects as go

            ctx.save_artifact("curve.json", go.Figure(go.Scatter(y=[1, 2, 3])))
        if cfg.hidden_truth:
            # Stands in for a hidden test set's labels: only the server may read it.
            ctx.save_artifact("truth.json", {"labels": hidden_marker(ctx.seed)}, private=True)
        ctx.log_summary(
            loss=method.loss(cfg.steps, ctx.seed),
            score=float(ctx.seed),
            **({"odd": float("nan")} if cfg.nan_metric else {}),
        )


class ProbeMethodConfig(PluginConfig):
    rate: float = Field(1.0, gt=0, le=100, description="decay rate")


@register_method
class ProbeFast(Method):
    name = "probe_fast"
    title = "Probe fast"
    benchmarks = ("probe",)
    paper = PROBE_PAPER
    Config = ProbeMethodConfig

    def loss(self, step: int, seed: int) -> float:
        return 1.0 / (1 + self.config.rate * step) + 0.01 * seed


@register_method
class ProbeSlow(ProbeFast):
    name = "probe_slow"
    title = "Probe slow"
    is_baseline = True

    def loss(self, step: int, seed: int) -> float:
        return 2.0 / (1 + 0.1 * self.config.rate * step) + 0.01 * seed


@register_method
class ProbePlain(Method):
    """A method without any configuration field (its stored config is {})."""

    name = "probe_plain"
    title = "Probe without config"
    benchmarks = ("probe",)
    paper = PROBE_PAPER

    def loss(self, step: int, seed: int) -> float:
        return 1.0 / step
