"""Predictives for Gaussian logits: sampling-free normCDF / sigmoid vs softmax + Monte Carlo.

The benchmark trains a small MLP whose logits are Gaussian (source: last-layer Laplace,
heteroscedastic head, or SNGP-style head) with the loss of the method's link, then asks the
method for the test predictive from the logit marginals (mu, var). Scored: accuracy, NLL,
ECE, the predictive's compute time, and KL from a high-sample Monte Carlo reference of the
same link's exact predictive E[g(z)/sum g(z)] (so both sampling error and analytic
approximation error show). A method exposes `link` and `predict(mu, var, generator)`;
methods that sample may also expose `sample_counts` to log KL/NLL/time against samples.
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
import torch
from pydantic import Field
from sklearn import datasets as skd
from sklearn.model_selection import train_test_split

from workers.benchmarks.probit_predictives.metrics import accuracy, ece, mean_kl, nll
from workers.benchmarks.probit_predictives.papers import PROBIT_PAPER
from workers.core import Benchmark, DatasetSpec, MetricSpec, PluginConfig, register_benchmark
from workers.methods.probit.heads import GaussianLogitClassifier
from workers.methods.probit.predictives import sample_link_probs


def load_probit_data(name: str, n_samples: int, n_classes: int, seed: int):
    if name == "digits":
        X, y = skd.load_digits(return_X_y=True)
        return X / 16.0, y
    return skd.make_classification(
        n_samples=n_samples,
        n_features=20,
        n_informative=10,
        n_redundant=2,
        n_classes=n_classes,
        flip_y=0.1,
        random_state=seed,
    )


class ProbitConfig(PluginConfig):
    dataset: Literal["digits", "generated"] = Field(
        "digits", description="scikit-learn digits or a generated set"
    )
    source: Literal["laplace", "heteroscedastic", "sngp"] = Field(
        "laplace", description="Where the Gaussian logits come from"
    )
    n_samples: int = Field(2000, ge=200, le=1_000_000, description="Samples of the generated set")
    n_classes: int = Field(5, ge=2, le=50, description="Classes of the generated set")
    hidden: int = Field(64, ge=4, le=4096, description="MLP width")
    epochs: int = Field(15, ge=1, le=1000, description="Training epochs")
    reference_samples: int = Field(
        5000, ge=100, le=1_000_000, description="MC samples of the reference predictive"
    )
    test_size: float = Field(0.25, gt=0.05, lt=0.9, description="Test fraction")


@register_benchmark
class ProbitPredictiveBenchmark(Benchmark):
    name = "probit-predictives"
    title = "Sampling-free predictives for Gaussian logits"
    description = (
        "normCDF / sigmoid closed forms vs softmax + MC: accuracy, NLL, ECE, KL to reference, time."
    )
    paper = PROBIT_PAPER
    Config = ProbitConfig
    metrics = (
        MetricSpec(
            "nll",
            "min",
            "nats",
            primary=True,
            description="Test negative log-likelihood of the predictive",
        ),
        MetricSpec("accuracy", "max", "%", description="Test accuracy"),
        MetricSpec("ece", "min", "", description="Expected calibration error (15 bins)"),
        MetricSpec(
            "kl_to_reference",
            "min",
            "nats",
            description="KL(MC reference of the link || predictive)",
        ),
        MetricSpec("predictive_ms", "min", "ms", description="Time to compute the test predictive"),
    )
    datasets = (
        DatasetSpec("digits", "bundled", "scikit-learn 8x8 digits"),
        DatasetSpec("generated", "generator", "make_classification with 10% label noise"),
    )

    def run(self, ctx, method) -> None:
        cfg = self.config
        X, y = load_probit_data(cfg.dataset, cfg.n_samples, cfg.n_classes, ctx.seed)
        ctx.record_dataset(
            cfg.dataset,
            __import__("hashlib").sha256(np.ascontiguousarray(X).tobytes()).hexdigest(),
            "scikit-learn",
        )
        Xtr, Xte, ytr, yte = train_test_split(
            X, y, test_size=cfg.test_size, random_state=ctx.seed, stratify=y
        )
        steps = 4
        ctx.progress(0, steps, "training")
        model = GaussianLogitClassifier(
            link=method.link,
            source=cfg.source,
            hidden=cfg.hidden,
            epochs=cfg.epochs,
            random_state=ctx.seed,
            device=str(ctx.device),
        ).fit(Xtr, ytr)
        ctx.check_cancelled()
        ctx.progress(1, steps, "logit moments")
        mu, var = model.logit_moments(Xte)
        yt = torch.as_tensor(np.searchsorted(model.classes_, yte), device=mu.device)
        gen = torch.Generator(device=mu.device).manual_seed(ctx.seed + 1)
        ref = sample_link_probs(
            mu,
            var,
            cfg.reference_samples,
            method.link,
            torch.Generator(device=mu.device).manual_seed(ctx.seed + 10**6),
        )
        ctx.progress(2, steps, "reference")
        for S in getattr(method, "sample_counts", lambda: ())():
            ctx.check_cancelled()
            t0 = time.perf_counter()
            p = sample_link_probs(mu, var, S, method.link, gen)
            ms = 1000 * (time.perf_counter() - t0)
            ctx.log_metrics(S, kl_to_reference=mean_kl(ref, p), nll=nll(p, yt), predictive_ms=ms)
        t0 = time.perf_counter()
        p = method.predict(mu, var, gen)
        if mu.device.type == "cuda":
            torch.cuda.synchronize()
        ms = 1000 * (time.perf_counter() - t0)
        ctx.progress(3, steps, "scoring")
        summary = {
            "nll": nll(p, yt),
            "accuracy": 100 * accuracy(p, yt),
            "ece": ece(p, yt),
            "kl_to_reference": mean_kl(ref, p),
            "predictive_ms": ms,
            "reference_nll": nll(ref, yt),
            "mean_logit_var": float(var.mean()),
        }
        if hasattr(model, "prior_precision_"):
            summary["prior_precision"] = model.prior_precision_
        ctx.log_summary(**summary)
        ctx.progress(steps, steps, "done")
