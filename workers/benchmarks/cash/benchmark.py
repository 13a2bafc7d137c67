"""The `cash` benchmark: CASH as a max k-armed bandit over model classes (Balef et al. 2025).

Protocol of one run (benchmark x method x config x seed):
1. Build the instance: K arms (model classes), each a sequence of T rewards. Real arms are
   random-search traces of scikit-learn models on a bundled dataset (cached); synthetic arms
   are draws from bounded light-tailed distributions. The instance depends only on the seed and
   the benchmark config, so every method sees the same one for the same seed.
2. Ask the method for a policy: `method.make_policy(n_arms=K, horizon=T, rng=...)`, which must
   return an object with `select(t) -> arm` and `update(arm, reward)`
   (see workers.benchmarks.cash.policy.BanditPolicy).
3. For t = 1..T: arm = policy.select(t); reward = next reward of that arm; policy.update(arm,
   reward); log the normalised regret of the best score found so far.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, field_validator

from workers.benchmarks.cash.arms import ArmSet, sequences_from_traces
from workers.benchmarks.cash.paper import CASH_PAPER
from workers.benchmarks.cash.plots import run_figure
from workers.benchmarks.cash.regret import normalized_regret, paper_normalized_loss
from workers.benchmarks.cash.search_spaces import DATASETS, SPACES
from workers.benchmarks.cash.synthetic import synthetic_sequences
from workers.benchmarks.cash.traces import TraceCache, TraceKey, dataset_sha256, traces_sha256
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)

ModelName = Literal[
    "svm", "random_forest", "gradient_boosting", "knn", "logistic_regression", "mlp"
]
MAX_CURVE_POINTS = 2000  # long synthetic runs log a strided curve, not 10^5 points


class CashConfig(PluginConfig):
    arms: Literal["real", "synthetic"] = Field(
        "real",
        description="real: random-search steps of scikit-learn models on a bundled dataset "
        "(traces cached); synthetic: bounded light-tailed reward distributions.",
    )
    horizon: int = Field(
        100, ge=2, le=100_000, description="Budget T: number of HPO iterations (arm pulls)."
    )
    dataset: Literal["breast_cancer", "digits", "wine", "iris"] = Field(
        "breast_cancer", description="Real arms: scikit-learn bundled classification dataset."
    )
    models: list[ModelName] = Field(
        default=list(SPACES),
        min_length=2,
        max_length=len(SPACES),
        description="Real arms: the model classes (arms) to choose between.",
    )
    n_configs: int = Field(
        32,
        ge=2,
        le=5000,
        description="Real arms: random configurations per model class in the cached trace (N).",
    )
    trace_seed: int = Field(
        0,
        ge=0,
        le=2**31 - 1,
        description="Real arms: seed of the trace (configurations and validation split).",
    )
    val_fraction: float = Field(
        0.3, ge=0.1, le=0.5, description="Real arms: fraction of the data held out for validation."
    )
    scoring: Literal["accuracy", "balanced_accuracy"] = Field(
        "accuracy", description="Real arms: validation score of a configuration."
    )
    instance: Literal["skewed_max", "power_xp10", "power_xp11"] = Field(
        "skewed_max", description="Synthetic arms: which instance (see docs/cash.md)."
    )

    @field_validator("models")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("model classes must be distinct")
        return value


@register_benchmark
class CashBenchmark(Benchmark):
    name = "cash"
    title = "CASH as a max k-armed bandit"
    description = (
        "Combined algorithm selection and hyper-parameter optimisation: each arm is a model "
        "class, a pull is one random-search step of it, and the goal is the best validation "
        "score found within T steps."
    )
    paper = CASH_PAPER
    Config = CashConfig
    metrics = (
        MetricSpec(
            "regret",
            goal="min",
            primary=True,
            description=(
                "Normalised regret at the final iteration T: (y* - best score found) / (y* - y_min), where "
                "y* and y_min are the best and worst scores any pull sequence could reach in the instance. "
                "0 = found the best achievable configuration."
            ),
        ),
        MetricSpec(
            "paper_normalized_loss",
            goal="min",
            description=(
                "The paper's normalised loss at T: (y* - best score found) / (y* - median of each arm's "
                "first-pull score); not bounded by 1."
            ),
        ),
        MetricSpec(
            "mean_regret",
            goal="min",
            description="Anytime performance: regret averaged over t = 1..T.",
        ),
        MetricSpec(
            "best_score",
            goal="max",
            description="Best validation score (raw reward) found within T.",
        ),
        MetricSpec(
            "best_arm_share",
            goal="max",
            unit="fraction",
            description="Fraction of the T pulls spent on an arm that holds y*.",
        ),
    )
    datasets = tuple(
        DatasetSpec(
            name=f"sklearn/{name}",
            kind="bundled",
            license="BSD-3-Clause (scikit-learn)",
            description=f"scikit-learn's bundled {name} dataset; real CASH arms are "
            "random-search traces on it.",
        )
        for name in DATASETS
    )

    def run(self, ctx: RunContext, method: Method) -> None:
        cfg: CashConfig = self.config
        make_policy = getattr(method, "make_policy", None)
        if make_policy is None:
            raise TypeError(
                f"method {method.name!r} does not implement make_policy(n_arms, horizon, rng), "
                "which the cash benchmark needs"
            )
        instance_seq, policy_seq = np.random.SeedSequence(ctx.seed).spawn(2)
        arms, build_steps = self._instance(ctx, np.random.default_rng(instance_seq))
        T, K = arms.horizon, arms.n_arms
        policy = make_policy(n_arms=K, horizon=T, rng=np.random.default_rng(policy_seq))
        ctx.log(
            f"{K} arms ({', '.join(arms.names)}), T={T}, y*={arms.y_star:.6g}, y_min={arms.y_min:.6g}, "
            f"method {method.name}"
        )

        stride = max(1, -(-T // MAX_CURVE_POINTS))
        rewards = np.empty(T)
        pulled = np.empty(T, dtype=int)
        incumbent = -np.inf
        span = arms.y_star - arms.y_min
        for t in range(1, T + 1):
            ctx.check_cancelled()
            arm = int(policy.select(t))
            reward = arms.pull(arm)
            policy.update(arm, reward)
            rewards[t - 1], pulled[t - 1] = reward, arm
            incumbent = max(incumbent, reward)
            if t % stride == 0 or t == T:
                regret = (arms.y_star - incumbent) / span if span > 0 else 0.0
                ctx.log_metrics(t, regret=regret, best_score=incumbent, reward=reward, arm=arm)
            if t % max(1, T // 50) == 0 or t == T:
                ctx.progress(build_steps + t, build_steps + T, f"iteration {t}/{T}")

        regret_curve = normalized_regret(rewards, arms.y_star, arms.y_min)
        counts = np.bincount(pulled, minlength=K)
        best = arms.best_arms()
        summary = {
            "regret": float(regret_curve[-1]),
            "mean_regret": float(regret_curve.mean()),
            "paper_normalized_loss": float(
                paper_normalized_loss(rewards, arms.y_star, arms.sequences[:, 0])[-1]
            ),
            "best_score": float(rewards.max()),
            "best_arm_share": float(counts[best].sum() / T),
            "y_star": arms.y_star,
        }
        summary.update(
            {f"pulls_{name}": int(c) for name, c in zip(arms.names, counts, strict=True)}
        )
        ctx.log_summary(**summary)
        ctx.log(
            f"final regret {summary['regret']:.4g}, best score {summary['best_score']:.6g}, pulls "
            + ", ".join(f"{n}={c}" for n, c in zip(arms.names, counts, strict=True))
        )
        ctx.save_artifact(
            "regret_and_pulls",
            run_figure(
                regret_curve,
                counts,
                arms.names,
                best,
                f"{method.name} on cash ({cfg.arms}), seed {ctx.seed}",
            ),
        )

    # -- instance ------------------------------------------------------------------------
    def _instance(self, ctx: RunContext, rng: np.random.Generator) -> tuple[ArmSet, int]:
        """The run's arm set and how many progress steps building it took (trace fits)."""
        cfg: CashConfig = self.config
        if cfg.arms == "synthetic":
            names, sequences = synthetic_sequences(cfg.instance, cfg.horizon, rng)
            ctx.record_dataset(
                f"cash-synthetic/{cfg.instance}", _sha256(sequences), "seeded generator"
            )
            return ArmSet(names, sequences), 0
        cache = TraceCache(ctx.data_path("cash-traces"))
        keys = {
            m: TraceKey(
                cfg.dataset, m, cfg.n_configs, cfg.trace_seed, cfg.val_fraction, cfg.scoring
            )
            for m in cfg.models
        }
        traces, missing = {}, [m for m, k in keys.items() if cache.load(k) is None]
        build_steps = len(missing) * cfg.n_configs
        total = build_steps + cfg.horizon
        for model in cfg.models:
            done_before = missing.index(model) * cfg.n_configs if model in missing else 0

            def on_step(i: int, model: str = model, done_before: int = done_before) -> None:
                ctx.check_cancelled()
                ctx.progress(done_before + i, total, f"building {model} trace {i}/{cfg.n_configs}")

            traces[model], hit = cache.get(keys[model], on_step)
            ctx.log(
                f"trace {keys[model].filename()} {'from cache' if hit else 'built'}: best "
                f"{max(traces[model]['scores']):.4f}"
            )
        ctx.record_dataset(
            f"sklearn/{cfg.dataset}", dataset_sha256(cfg.dataset), "scikit-learn bundled dataset"
        )
        ctx.record_dataset(
            f"cash-traces/{cfg.dataset}",
            traces_sha256(traces),
            f"random-search traces n={cfg.n_configs} seed={cfg.trace_seed} ({cfg.scoring})",
        )
        scores = [np.asarray(traces[m]["scores"]) for m in cfg.models]
        return ArmSet(
            tuple(cfg.models), sequences_from_traces(scores, cfg.horizon, rng)
        ), build_steps


def _sha256(array: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(array, dtype=float).tobytes()).hexdigest()
