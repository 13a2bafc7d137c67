"""Benchmark `dpbss-support-recovery`: support recovery of pure epsilon-DP best-subset selection.

Protocol (the paper's synthetic setting): for each trial draw a fresh data set (X, y) with a
known s-sparse support, ask the method for `n_draws` DP supports, and score each draw by exact
recovery (selected == true support) and F1. Per-trial means are aggregated over trials with a
95% normal confidence interval; wall time per trial is reported too.
"""

from __future__ import annotations

import time

import numpy as np
import plotly.graph_objects as go
from pydantic import Field

from workers.benchmarks.dpbss.data import make_sparse_data, support_f1
from workers.benchmarks.dpbss.paper import DPBSS_PAPER
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)


class DPBSSConfig(PluginConfig):
    loss: str = Field(
        "least_squares",
        pattern="^(least_squares|hinge)$",
        description="least_squares (regression) or hinge (classification, labels sign(X beta + noise)).",
    )
    n: int = Field(1000, ge=10, le=1_000_000, description="Number of samples.")
    p: int = Field(20, ge=2, le=10_000, description="Number of features.")
    s: int = Field(
        3, ge=1, le=50, description="Support size (true support at indices 1, 3, ..., 2s-1)."
    )
    epsilon: float = Field(
        1.0, gt=0.0, le=1000.0, description="Privacy budget of one selected support."
    )
    rho: float = Field(0.1, ge=0.0, lt=1.0, description="Feature correlation Sigma_ij = rho^|i-j|.")
    snr: float = Field(
        5.0, gt=0.0, le=1e6, description="Signal-to-noise ratio ||X beta||^2 / ||noise||^2."
    )
    n_trials: int = Field(
        4, ge=2, le=1000, description="Independent data sets (confidence intervals over these)."
    )
    n_draws: int = Field(20, ge=1, le=10_000, description="DP supports drawn per data set.")


def mean_ci95(values: np.ndarray) -> tuple[float, float]:
    """Mean and normal-approximation 95% half-width (1.96 standard errors)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float(values.mean()), float("nan")
    return float(values.mean()), float(1.96 * values.std(ddof=1) / np.sqrt(len(values)))


@register_benchmark
class DPBSSBenchmark(Benchmark):
    name = "dpbss-support-recovery"
    title = "DP best-subset selection: support recovery"
    description = (
        "Pure epsilon-DP selection of an s-sparse support on synthetic correlated Gaussian data; "
        "exact-recovery rate and F1 with 95% CIs over data sets, and run time."
    )
    paper = DPBSS_PAPER
    Config = DPBSSConfig
    datasets = (
        DatasetSpec(
            "dpbss-synthetic",
            "generator",
            "Gaussian design with Toeplitz covariance rho^|i-j| "
            "and beta* = 1/sqrt(s) on odd indices (the paper's generator).",
        ),
    )
    metrics = (
        MetricSpec(
            "exact_recovery",
            "max",
            "fraction",
            primary=True,
            description="Fraction of DP draws equal to the true support (mean over data sets).",
        ),
        MetricSpec(
            "exact_recovery_ci95",
            "min",
            "fraction",
            description="95% CI half-width of exact_recovery.",
        ),
        MetricSpec(
            "f1", "max", "", description="Mean F1 of the drawn supports against the true support."
        ),
        MetricSpec("f1_ci95", "min", "", description="95% CI half-width of f1."),
        MetricSpec("seconds_per_trial", "min", "s", description="Wall time of one select() call."),
    )

    def run(self, ctx: RunContext, method: Method) -> None:
        cfg = self.config
        if 2 * cfg.s > cfg.p:
            raise ValueError(f"s={cfg.s} needs p >= 2s={2 * cfg.s} (true support at odd indices)")
        rng = np.random.default_rng(ctx.seed)
        exact, f1, secs, mistakes = [], [], [], []
        ctx.progress(0, cfg.n_trials, "starting")
        for t in range(cfg.n_trials):
            ctx.check_cancelled()
            X, y, truth = make_sparse_data(cfg.n, cfg.p, cfg.s, cfg.rho, cfg.snr, cfg.loss, rng)
            start = time.perf_counter()
            draws = np.asarray(
                method.select(
                    X, y, s=cfg.s, epsilon=cfg.epsilon, loss=cfg.loss, n_draws=cfg.n_draws, rng=rng
                )
            )
            secs.append(time.perf_counter() - start)
            if draws.shape != (cfg.n_draws, cfg.s):
                raise ValueError(
                    f"{method.name}.select returned shape {draws.shape}, expected {(cfg.n_draws, cfg.s)}"
                )
            hits = [set(d.tolist()) == set(truth.tolist()) for d in draws]
            exact.append(float(np.mean(hits)))
            f1.append(float(np.mean([support_f1(d, truth) for d in draws])))
            mistakes.extend(len(set(d.tolist()) - set(truth.tolist())) for d in draws)
            ctx.log_metrics(t, exact_recovery=exact[-1], f1=f1[-1], seconds=secs[-1])
            ctx.progress(t + 1, cfg.n_trials, f"trial {t + 1}/{cfg.n_trials}")
        er, er_ci = mean_ci95(np.array(exact))
        f, f_ci = mean_ci95(np.array(f1))
        ctx.log_summary(
            exact_recovery=er,
            exact_recovery_ci95=er_ci,
            f1=f,
            f1_ci95=f_ci,
            seconds_per_trial=float(np.mean(secs)),
        )
        ctx.save_artifact("mistakes_histogram", _mistakes_figure(mistakes, cfg.s, method.name))


def _mistakes_figure(mistakes: list[int], s: int, name: str) -> go.Figure:
    counts = np.bincount(np.asarray(mistakes, dtype=int), minlength=s + 1)
    fig = go.Figure(go.Bar(x=list(range(s + 1)), y=counts.tolist(), name=name))
    fig.update_layout(
        title=f"{name}: swap distance of DP draws from the true support",
        xaxis_title="mistakes |S \\ S_true|",
        yaxis_title="draws",
    )
    return fig
