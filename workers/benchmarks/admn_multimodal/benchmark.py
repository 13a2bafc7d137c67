"""ADMN benchmark: accuracy at a layer budget under per-modality corruption, FLOPs and latency.

Protocol: digits split train/test; two views (image, transpose) with Gaussian noise levels drawn
per sample and modality from `noise_levels`. The method trains on the noisy training views
(`method.fit`), then is scored on (a) test views drawn from the same mixed regime (primary:
accuracy there) and (b) for each level s, test views with one random modality at s and the other
clean. FLOPs are counted analytically per sample from the layers actually run; latency is
measured per sample (batch 1) side by side with the same network run at full depth.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from pydantic import Field, field_validator

from workers.benchmarks.admn_multimodal.data import (
    load_digit_split,
    make_views,
    one_corrupted,
    random_levels,
)
from workers.benchmarks.admn_multimodal.papers import ADMN_PAPER
from workers.core import Benchmark, DatasetSpec, MetricSpec, PluginConfig, register_benchmark
from workers.methods.admn.network import flops_per_sample, full_mask
from workers.methods.admn.training import predict


class ADMNBenchConfig(PluginConfig):
    layers: int = Field(4, ge=1, le=48, description="Backbone layers per modality (L_m)")
    budget: int = Field(4, ge=0, le=96, description="Total layers across both modalities (L)")
    d: int = Field(32, ge=4, le=1024, description="Backbone width")
    hidden: int = Field(64, ge=4, le=4096, description="Hidden width of each residual MLP layer")
    noise_levels: tuple[float, ...] = Field(
        (0.0, 0.5, 1.0, 2.0),
        min_length=2,
        max_length=10,
        description="Corruption levels (Gaussian noise std on [0, 1] pixels); the first is 'clean'",
    )
    test_size: float = Field(0.3, gt=0.05, lt=0.9, description="Test fraction of digits")
    latency_samples: int = Field(
        100, ge=1, le=100000, description="Test samples timed one at a time"
    )

    @field_validator("noise_levels")
    @classmethod
    def _levels(cls, v: tuple[float, ...]) -> tuple[float, ...]:
        if any(s < 0 or s > 10 for s in v):
            raise ValueError("every noise level must lie in [0, 10]")
        return v

    def model_post_init(self, _ctx) -> None:
        if self.budget > 2 * self.layers:
            raise ValueError(f"budget: at most 2 * layers = {2 * self.layers}, got {self.budget}")


def _latency(net, views, masks, n: int, ctx) -> tuple[float, float]:
    """Median seconds per sample of the method's path and of full depth, interleaved per sample
    (the median resists the shared machine's hiccups)."""
    net.eval()
    t_method, t_full = [], []
    with torch.no_grad():
        for i in range(n):
            one = [v[i : i + 1] for v in views]
            t0 = time.perf_counter()
            net(one, None if masks is None else masks[i : i + 1])
            t1 = time.perf_counter()
            net.fuse(one, full_mask(net, 1))
            t_full.append(time.perf_counter() - t1)
            t_method.append(t1 - t0)
            if i % 50 == 0:
                ctx.check_cancelled()
    return float(np.median(t_method)), float(np.median(t_full))


@register_benchmark
class ADMNMultimodalBenchmark(Benchmark):
    name = "admn-multimodal"
    title = "Adaptive-depth multimodal classification under corruption (two noisy digit views)"
    description = "Accuracy at a fixed total layer budget, per corruption level; FLOPs and latency vs full depth."
    paper = ADMN_PAPER
    Config = ADMNBenchConfig
    metrics = (
        MetricSpec(
            "accuracy",
            "max",
            "%",
            primary=True,
            description="Test accuracy at the configured budget, mixed per-sample corruption",
        ),
        MetricSpec(
            "mflops_per_sample",
            "min",
            "MFLOP",
            description="Mean analytic matmul FLOPs per sample (1e6)",
        ),
        MetricSpec(
            "flops_ratio_vs_full", "min", "", description="FLOPs / FLOPs of the full-depth network"
        ),
        MetricSpec(
            "latency_ratio_vs_full",
            "min",
            "",
            description="Per-sample latency / full depth, same run",
        ),
        MetricSpec("latency_ms", "min", "ms", description="Median per-sample latency (batch 1)"),
        MetricSpec("layers_used", "min", "", description="Mean layers run per sample"),
        MetricSpec("fit_time_s", "min", "s", description="Training time"),
    )
    datasets = (
        DatasetSpec(
            "digits", "bundled", "scikit-learn 8x8 digits, scaled to [0, 1], two noisy views"
        ),
    )

    def run(self, ctx, method) -> None:
        cfg = self.config
        rng = np.random.default_rng(ctx.seed)
        Xtr, Xte, ytr, yte, digest = load_digit_split(cfg.test_size, ctx.seed)
        ctx.record_dataset("digits", digest, "scikit-learn bundled")
        levels = cfg.noise_levels
        sig_tr = random_levels(len(Xtr), levels, rng)
        views_tr = [v.to(ctx.device) for v in make_views(Xtr, sig_tr, rng)]
        y_tr = torch.tensor(ytr, device=ctx.device)
        conditions = {"mixed": random_levels(len(Xte), levels, rng)}
        conditions.update(
            {f"one_at_{s:g}": one_corrupted(len(Xte), s, levels[0], rng) for s in levels[1:]}
        )
        test = {
            k: [v.to(ctx.device) for v in make_views(Xte, s, rng)] for k, s in conditions.items()
        }
        y_te = torch.tensor(yte, device=ctx.device)

        epochs = sum(getattr(method.config, k, 0) for k in ("epochs", "controller_epochs"))
        total = epochs + len(test) + 1
        done = 0

        def callback(stage: str, epoch: int, loss: float) -> None:
            nonlocal done
            ctx.check_cancelled()
            done += 1
            ctx.log_metrics(done, **{f"{stage}_loss": loss})
            ctx.progress(done, total, f"{stage} epoch {epoch + 1}")

        t0 = time.perf_counter()
        net = method.fit(
            views_tr,
            y_tr,
            torch.tensor(sig_tr, dtype=torch.float32, device=ctx.device),
            n_classes=10,
            layers=[cfg.layers, cfg.layers],
            budget=cfg.budget,
            d=cfg.d,
            hidden=cfg.hidden,
            seed=ctx.seed,
            callback=callback,
        ).to(ctx.device)
        fit_s = time.perf_counter() - t0
        done = epochs
        summary: dict[str, float] = {"fit_time_s": fit_s}
        per_condition = {}
        for k, views in test.items():
            ctx.check_cancelled()
            masks = method.masks(net, views)
            pred, used = predict(net, views, masks)
            per_mod = [float(m.sum(-1).float().mean()) for m in net.split(used)]
            acc = 100.0 * float((pred == y_te).float().mean())
            is_adaptive = masks is None
            flops = flops_per_sample(net, used, with_controller=is_adaptive).float().mean()
            full = flops_per_sample(net, full_mask(net, 1), with_controller=False)[0]
            per_condition[k] = {
                "accuracy": acc,
                "layers_per_modality": per_mod,
                "mflops": float(flops) / 1e6,
            }
            if k == "mixed":
                summary.update(
                    accuracy=acc,
                    mflops_per_sample=float(flops) / 1e6,
                    flops_ratio_vs_full=float(flops / full),
                    layers_used=float(used.sum(-1).float().mean()),
                )
                n = min(cfg.latency_samples, len(y_te))
                lat, lat_full = _latency(net, views, masks, n, ctx)
                summary.update(latency_ms=1e3 * lat, latency_ratio_vs_full=lat / lat_full)
            else:
                summary[f"accuracy_{k}"] = acc
                # Layers given to the corrupted modality (the one at level s) on average.
                noisy = torch.tensor(conditions[k][:, 0] > conditions[k][:, 1], device=used.device)
                m0, m1 = (m.sum(-1).float() for m in net.split(used))
                summary[f"layers_to_corrupted_{k}"] = float(torch.where(noisy, m0, m1).mean())
            done += 1
            ctx.progress(done, total, f"evaluated {k}")
        ctx.log_summary(**summary)
        ctx.save_artifact("per_condition.json", per_condition)
        ctx.progress(total, total, "done")
        try:
            import plotly.graph_objects as go

            keys = list(per_condition)
            fig = go.Figure(go.Bar(x=keys, y=[per_condition[k]["accuracy"] for k in keys]))
            fig.update_layout(
                xaxis_title="test corruption",
                yaxis_title="accuracy (%)",
                title=f"budget {cfg.budget} of {2 * cfg.layers} layers",
            )
            ctx.save_artifact("accuracy_by_corruption", fig)
        except ImportError:  # plotly is a platform dependency, not a library one
            pass
