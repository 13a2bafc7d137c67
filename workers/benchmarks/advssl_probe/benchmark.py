"""Few-label linear probe after self-supervised pre-training on digits (8x8 images).

A method exposes `objective()` returning a fresh loss module `loss(z1, z2)`. The benchmark
pre-trains the encoder on the training images (labels unused) with two augmented views per
image, then fits a logistic regression on k labels per class from the frozen representation
and reports test accuracy, mean and 95% CI over `probe_repeats` label draws.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np
from pydantic import Field
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from workers.benchmarks.advssl_probe.papers import ADVSSL_PAPER
from workers.benchmarks.zen_fewshot.benchmark import mean_ci95
from workers.core import Benchmark, DatasetSpec, MetricSpec, PluginConfig, register_benchmark
from workers.methods.advssl.bias import penalty_gradient_bias
from workers.methods.advssl.train import linear_probe, represent, train_ssl


class AdvSslConfig(PluginConfig):
    batch_size: int = Field(
        64, ge=4, le=4096, description="Pre-training mini-batch size (the bias grows as it shrinks)"
    )
    epochs: int = Field(15, ge=1, le=2000, description="Pre-training epochs")
    lr: float = Field(1e-3, gt=0, le=1, description="Adam learning rate")
    labels_per_class: int = Field(
        10, ge=1, le=100, description="Labels per class for the linear probe"
    )
    probe_repeats: int = Field(5, ge=2, le=100, description="Label draws for the probe (CI)")
    bias_batches: int = Field(
        50,
        ge=0,
        le=10_000,
        description="Random batches for the penalty-gradient bias diagnostic (0 = skip)",
    )


@register_benchmark
class AdvSslProbeBenchmark(Benchmark):
    name = "advssl-probe"
    title = "Self-supervised pre-training, few-label linear probe (digits)"
    description = (
        "Two augmented views per 8x8 digit; logistic-regression probe on k labels per class."
    )
    paper = ADVSSL_PAPER
    Config = AdvSslConfig
    metrics = (
        MetricSpec(
            "probe_accuracy", "max", "%", primary=True, description="Linear-probe test accuracy"
        ),
        MetricSpec(
            "probe_accuracy_ci95", "min", "%", description="95% CI half-width over label draws"
        ),
        MetricSpec("pretrain_time_s", "min", "s", description="Pre-training wall-clock"),
        MetricSpec(
            "grad_bias_plugin",
            "min",
            "",
            description="||mean mini-batch grad of ||C_B-I||^2 - full grad|| / ||full grad||",
        ),
        MetricSpec(
            "grad_bias_adversarial",
            "min",
            "",
            description="Same for Adv-SSL's 2<G,C_B-I>-||G||^2 with G from an independent batch",
        ),
    )
    datasets = (DatasetSpec("digits", "bundled", "scikit-learn 8x8 digits, scaled to [0, 1]"),)

    def run(self, ctx, method) -> None:
        cfg = self.config
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        ctx.record_dataset("digits", hashlib.sha256(X.tobytes()).hexdigest(), "scikit-learn")
        Xtr, Xte, ytr, yte = train_test_split(
            X, y, test_size=0.3, random_state=ctx.seed, stratify=y
        )

        def on_epoch(epoch: int, loss: float) -> None:
            ctx.check_cancelled()
            ctx.log_metrics(epoch, train_loss=loss)
            ctx.progress(epoch + 1, cfg.epochs + 1, f"pre-training epoch {epoch + 1}")

        t0 = time.perf_counter()
        model = train_ssl(
            Xtr,
            method.objective(),
            batch_size=cfg.batch_size,
            epochs=cfg.epochs,
            lr=cfg.lr,
            seed=ctx.seed,
            device=str(ctx.device),
            on_epoch=on_epoch,
        )
        pretrain = time.perf_counter() - t0
        Ztr, Zte = represent(model, Xtr, str(ctx.device)), represent(model, Xte, str(ctx.device))
        rng = np.random.default_rng(ctx.seed)
        accs = [
            100 * linear_probe(Ztr, ytr, Zte, yte, cfg.labels_per_class, rng)
            for _ in range(cfg.probe_repeats)
        ]
        m, ci = mean_ci95(accs)
        summary = {"probe_accuracy": m, "probe_accuracy_ci95": ci, "pretrain_time_s": pretrain}
        if cfg.bias_batches >= 2:  # the mechanism behind the claim, at this run's batch size
            b = penalty_gradient_bias(
                model,
                Xtr,
                cfg.batch_size,
                n_batches=cfg.bias_batches,
                seed=ctx.seed,
                device=str(ctx.device),
            )
            summary |= {
                "grad_bias_plugin": b.plugin,
                "grad_bias_adversarial": b.adversarial,
                "grad_bias_noise_floor_plugin": b.noise_floor_plugin,
                "grad_bias_noise_floor_adversarial": b.noise_floor_adversarial,
            }
        ctx.log_summary(**summary)
        ctx.progress(cfg.epochs + 1, cfg.epochs + 1, "probe done")
