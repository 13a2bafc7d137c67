"""Oblique-tree benchmarks: test score per tree depth, repeated random train/test splits.

A method exposes `make_estimator(task, depth, seed, device)` returning a scikit-learn
estimator ("classification" or "regression"). Datasets are scikit-learn's bundled ones plus
seeded generators whose size is a config value (defaults small; up to 10^6 samples on GPU).
"""

from __future__ import annotations

import hashlib
import time
from typing import Literal

import numpy as np
from pydantic import Field, field_validator
from sklearn import datasets as skd
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import train_test_split

from workers.benchmarks.oblique_trees.papers import RADDT_PAPER
from workers.benchmarks.zen_fewshot.benchmark import mean_ci95
from workers.core import Benchmark, DatasetSpec, MetricSpec, PluginConfig, register_benchmark

CLASSIFICATION_SETS = ("iris", "wine", "breast_cancer", "digits", "generated")
REGRESSION_SETS = ("diabetes", "generated")


def load_task_data(
    task: str, name: str, n_samples: int, n_features: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Bundled scikit-learn data, or the generated set: make_classification / Friedman #1."""
    if name == "generated":
        if task == "classification":
            return skd.make_classification(
                n_samples=n_samples,
                n_features=n_features,
                n_informative=max(2, n_features // 2),
                n_redundant=0,
                n_classes=3,
                n_clusters_per_class=2,
                random_state=seed,
            )
        return skd.make_friedman1(
            n_samples=n_samples, n_features=max(5, n_features), noise=1.0, random_state=seed
        )
    loader = getattr(skd, f"load_{name}", None)
    if loader is None:
        raise ValueError(f"dataset: unknown {name!r}")
    return loader(return_X_y=True)


class ObliqueConfig(PluginConfig):
    dataset: str = Field("wine", description="Bundled scikit-learn dataset or 'generated'")
    depths: tuple[int, ...] = Field(
        (2, 3, 4), min_length=1, max_length=12, description="Tree depths to evaluate (1..12)"
    )
    repeats: int = Field(
        3, ge=2, le=50, description="Random train/test splits per depth (for the CI)"
    )
    test_size: float = Field(0.25, gt=0.05, lt=0.9, description="Test fraction")
    n_samples: int = Field(
        2000, ge=50, le=1_000_000, description="Samples of the generated dataset"
    )
    n_features: int = Field(10, ge=2, le=1000, description="Features of the generated dataset")

    @field_validator("depths")
    @classmethod
    def _depths(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(not 1 <= d <= 12 for d in v):
            raise ValueError("every depth must lie in [1, 12]")
        return tuple(sorted(set(v)))


class ObliqueClassificationConfig(ObliqueConfig):
    dataset: Literal[CLASSIFICATION_SETS] = Field(
        "wine", description="Bundled scikit-learn dataset or 'generated'"
    )


class ObliqueRegressionConfig(ObliqueConfig):
    dataset: Literal[REGRESSION_SETS] = Field(
        "diabetes", description="Bundled scikit-learn dataset or 'generated' (Friedman #1)"
    )


class _ObliqueBenchmark(Benchmark):
    task = ""
    score_name = ""
    paper = RADDT_PAPER

    def _score(self, est, X, y) -> dict[str, float]:
        pred = est.predict(X)
        if self.task == "classification":
            return {"accuracy": 100.0 * float(np.mean(pred == y))}
        return {"r2": float(r2_score(y, pred)), "mse": float(mean_squared_error(y, pred))}

    def run(self, ctx, method) -> None:
        cfg = self.config
        X, y = load_task_data(self.task, cfg.dataset, cfg.n_samples, cfg.n_features, ctx.seed)
        ctx.log(f"{cfg.dataset}: {X.shape[0]} samples, {X.shape[1]} features")
        digest = hashlib.sha256(
            np.ascontiguousarray(X).tobytes() + np.ascontiguousarray(y).tobytes()
        ).hexdigest()
        source = "scikit-learn generator" if cfg.dataset == "generated" else "scikit-learn bundled"
        ctx.record_dataset(f"{cfg.dataset}-{self.task}", digest, source)
        total, done = len(cfg.depths) * cfg.repeats, 0
        per_depth: dict[int, dict[str, list[float]]] = {}
        for depth in cfg.depths:
            scores: dict[str, list[float]] = {}
            for r in range(cfg.repeats):
                ctx.check_cancelled()
                split_seed = ctx.seed * 1000 + r
                strat = y if self.task == "classification" else None
                Xtr, Xte, ytr, yte = train_test_split(
                    X, y, test_size=cfg.test_size, random_state=split_seed, stratify=strat
                )
                est = method.make_estimator(self.task, depth, split_seed, str(ctx.device))
                t0 = time.perf_counter()
                est.fit(Xtr, ytr)
                fit_s = time.perf_counter() - t0
                for k, v in {**self._score(est, Xte, yte), "fit_time_s": fit_s}.items():
                    scores.setdefault(k, []).append(v)
                done += 1
                ctx.progress(done, total, f"depth {depth}, split {r + 1}/{cfg.repeats}")
            per_depth[depth] = scores
            m, ci = mean_ci95(scores[self.score_name])
            ctx.log_metrics(
                depth,
                **{
                    self.score_name: m,
                    f"{self.score_name}_ci95": ci,
                    "fit_time_s": float(np.mean(scores["fit_time_s"])),
                },
            )
        all_scores = [v for d in per_depth.values() for v in d[self.score_name]]
        m, ci = mean_ci95(all_scores)
        summary = {
            self.score_name: m,
            f"{self.score_name}_ci95": ci,
            "fit_time_s": float(np.mean([v for d in per_depth.values() for v in d["fit_time_s"]])),
        }
        for depth, s in per_depth.items():
            summary[f"{self.score_name}_depth{depth}"] = float(np.mean(s[self.score_name]))
        ctx.log_summary(**summary)
        ctx.save_artifact("per_depth.json", {str(d): s for d, s in per_depth.items()})
        try:
            import plotly.graph_objects as go

            xs = list(per_depth)
            stats = [mean_ci95(per_depth[d][self.score_name]) for d in xs]
            fig = go.Figure(
                go.Scatter(
                    x=xs,
                    y=[s[0] for s in stats],
                    mode="lines+markers",
                    error_y={"type": "data", "array": [s[1] for s in stats]},
                )
            )
            fig.update_layout(xaxis_title="depth", yaxis_title=f"test {self.score_name}")
            ctx.save_artifact("score_vs_depth", fig)
        except ImportError:  # plotly is a dependency of the platform, not of the library
            pass


@register_benchmark
class ObliqueClassificationBenchmark(_ObliqueBenchmark):
    name = "oblique-classification"
    title = "Oblique decision trees: classification accuracy per depth"
    description = "Test accuracy (95% CI over splits) of single trees at each depth."
    task, score_name = "classification", "accuracy"
    Config = ObliqueClassificationConfig
    metrics = (
        MetricSpec(
            "accuracy",
            "max",
            "%",
            primary=True,
            description="Test accuracy, mean over depths and splits",
        ),
        MetricSpec("accuracy_ci95", "min", "%", description="95% CI half-width"),
        MetricSpec("fit_time_s", "min", "s", description="Mean fit time"),
    )
    datasets = tuple(
        DatasetSpec(n, "generator" if n == "generated" else "bundled", f"scikit-learn {n}")
        for n in CLASSIFICATION_SETS
    )


@register_benchmark
class ObliqueRegressionBenchmark(_ObliqueBenchmark):
    name = "oblique-regression"
    title = "Oblique decision trees: regression R^2 per depth"
    description = "Test R^2 (95% CI over splits) of single trees at each depth."
    task, score_name = "regression", "r2"
    Config = ObliqueRegressionConfig
    metrics = (
        MetricSpec(
            "r2", "max", "", primary=True, description="Test R^2, mean over depths and splits"
        ),
        MetricSpec("r2_ci95", "min", "", description="95% CI half-width"),
        MetricSpec("fit_time_s", "min", "s", description="Mean fit time"),
    )
    datasets = tuple(
        DatasetSpec(n, "generator" if n == "generated" else "bundled", f"scikit-learn {n}")
        for n in REGRESSION_SETS
    )
