"""Few-shot hypergraph node classification (the ZEN paper's protocol).

Per split: k labelled nodes per class for training and k for validation, the rest for test;
`splits` random splits from ctx.seed. A method exposes `make_estimator(seed)` returning an
object with fit(H, X, y, train_idx, val_idx) and predict(idx) (ZEN, HGNN and MLP all do).
The benchmark times fit+predict per split; with `measure_speedup` it also trains the HGNN and
MLP baselines on the same splits in the same process, so the speed-up ratio is measured side
by side rather than across runs.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch
from pydantic import Field

from workers.benchmarks.zen_fewshot.data import PAPER_DATASETS, RELEASE_BASE_URL, resolve_dataset
from workers.benchmarks.zen_fewshot.papers import ZEN_PAPER
from workers.core import Benchmark, DatasetSpec, MetricSpec, PluginConfig, register_benchmark


def mean_ci95(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of the Student-t 95% confidence interval."""
    from scipy import stats

    a = np.asarray(values, dtype=float)
    if a.size < 2:
        return float(a.mean()), math.nan
    return float(a.mean()), float(
        stats.t.ppf(0.975, a.size - 1) * a.std(ddof=1) / math.sqrt(a.size)
    )


def few_shot_split(
    y: torch.Tensor, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """k train and k validation nodes per class (fewer if a class is small), rest test."""
    y = y.cpu().numpy()
    train, val = [], []
    for c in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == c))
        train.extend(idx[:k])
        val.extend(idx[k : 2 * k])
    rest = np.setdiff1d(np.arange(len(y)), np.concatenate([train, val]))
    return np.sort(train), np.sort(val), rest


class ZenFewShotConfig(PluginConfig):
    dataset: str = Field(
        "zoo",
        pattern=r"^[A-Za-z0-9_\-]+$",
        max_length=64,
        description=f"Dataset in the ZEN release format; the paper's: {', '.join(PAPER_DATASETS)}",
    )
    k: int = Field(
        5,
        ge=1,
        le=100,
        description="Labelled nodes per class for training (and again for validation)",
    )
    splits: int = Field(10, ge=1, le=100, description="Random splits averaged over")
    measure_speedup: bool = Field(
        True, description="Also time trained HGNN and MLP on the same splits (speed-up ratio)"
    )
    baseline_epochs: int = Field(
        200, ge=1, le=5000, description="Epochs of the timed trained baselines"
    )
    base_url: str = Field(
        RELEASE_BASE_URL, max_length=500, description="Release folder URL for downloads"
    )
    sha256_H: str = Field(
        "",
        pattern=r"^([0-9a-f]{64})?$",
        description="Pinned SHA-256 of H.pt (datasets not bundled)",
    )
    sha256_X: str = Field("", pattern=r"^([0-9a-f]{64})?$", description="Pinned SHA-256 of X.pt")
    sha256_Y: str = Field("", pattern=r"^([0-9a-f]{64})?$", description="Pinned SHA-256 of Y.pt")


@register_benchmark
class ZenFewShotBenchmark(Benchmark):
    name = "zen-fewshot"
    title = "Few-shot hypergraph node classification (ZEN protocol)"
    description = "k labelled nodes per class, 10 random splits; test accuracy with 95% CI and wall-clock time."
    paper = ZEN_PAPER
    Config = ZenFewShotConfig
    metrics = (
        MetricSpec(
            "accuracy", "max", "%", primary=True, description="Test accuracy, mean over splits"
        ),
        MetricSpec("accuracy_ci95", "min", "%", description="Half-width of the 95% CI over splits"),
        MetricSpec(
            "time_s",
            "min",
            "s",
            description="Wall-clock fit+predict per split (incl. model selection)",
        ),
        MetricSpec(
            "speedup_vs_fastest_trained",
            "max",
            "x",
            description="Fastest trained baseline's time / this method's time, same run",
        ),
    )
    datasets = tuple(
        DatasetSpec(
            n,
            "shared" if n in ("zoo", "senate-committees") else "url",
            f"ZEN release dataset {n}",
            url=f"{RELEASE_BASE_URL}/{n}/",
            license="MIT",
        )
        for n in PAPER_DATASETS
    )

    def run(self, ctx, method) -> None:
        cfg = self.config
        pins = {"H": cfg.sha256_H, "X": cfg.sha256_X, "Y": cfg.sha256_Y}
        data = resolve_dataset(cfg.dataset, ctx.data_path("zen"), pins, cfg.base_url)
        ctx.record_dataset(data.name, data.sha256, data.source)
        H, X, Y = data.H.to(ctx.device), data.X.to(ctx.device), data.Y.to(ctx.device)
        rng = np.random.default_rng(ctx.seed)
        splits = [few_shot_split(data.Y, cfg.k, rng) for _ in range(cfg.splits)]
        timed = {"method": method.make_estimator}
        if cfg.measure_speedup:
            from workers.methods.hypergraph_baselines.models import TrainedNodeClassifier

            for arch in ("hgnn", "mlp"):
                timed[arch] = lambda seed, a=arch: TrainedNodeClassifier(
                    a, epochs=cfg.baseline_epochs, seed=seed
                )
        accs: dict[str, list[float]] = {k: [] for k in timed}
        times: dict[str, list[float]] = {k: [] for k in timed}
        total = len(splits) * len(timed)
        for s, (tr, va, te) in enumerate(splits):
            for j, (key, make) in enumerate(timed.items()):
                ctx.check_cancelled()
                est = make(ctx.seed * 1000 + s)
                if ctx.device.type == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                est.fit(H, X, Y, tr, va)
                pred = est.predict(te)
                if ctx.device.type == "cuda":
                    torch.cuda.synchronize()
                times[key].append(time.perf_counter() - t0)
                accs[key].append(100.0 * (pred.cpu() == data.Y[te]).float().mean().item())
                ctx.progress(s * len(timed) + j + 1, total, f"split {s + 1}/{len(splits)}: {key}")
            ctx.log_metrics(s, accuracy=accs["method"][-1], time_s=times["method"][-1])
        acc, ci = mean_ci95(accs["method"])
        summary = {"accuracy": acc, "accuracy_ci95": ci, "time_s": float(np.mean(times["method"]))}
        rows = []
        for key in timed:
            m, c = mean_ci95(accs[key])
            rows.append(
                {"model": key, "accuracy": m, "ci95": c, "time_s": float(np.mean(times[key]))}
            )
        if cfg.measure_speedup:
            fastest = min(float(np.mean(times[a])) for a in ("hgnn", "mlp"))
            summary["speedup_vs_fastest_trained"] = fastest / max(summary["time_s"], 1e-12)
            for a in ("hgnn", "mlp"):
                summary[f"{a}_accuracy"] = mean_ci95(accs[a])[0]
                summary[f"{a}_time_s"] = float(np.mean(times[a]))
        ctx.log_summary(**summary)
        ctx.save_artifact(
            "splits.json", {"rows": rows, "per_split_accuracy": accs, "per_split_time_s": times}
        )
        ctx.log(f"{data.name}: accuracy {acc:.1f} +- {ci:.1f} over {len(splits)} splits")
