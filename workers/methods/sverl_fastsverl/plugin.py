"""Platform glue for FastSVERL (on-policy and off-policy)."""

from __future__ import annotations

import torch
from pydantic import Field

from workers.benchmarks.sverl_explain.benchmark import SverlMethod
from workers.benchmarks.sverl_explain.task import Explainer, ExplanationTask
from workers.core import PluginConfig, RunContext, register_method
from workers.methods.sverl_fastsverl.fastsverl import (
    CharacteristicModel,
    CharFn,
    FastSVERL,
    importance_weights,
    train_characteristic,
)


class FastSVERLConfig(PluginConfig):
    char_updates: int = Field(800, ge=1, le=1_000_000, description="Characteristic-model updates.")
    shapley_updates: int = Field(800, ge=1, le=1_000_000, description="Shapley-model updates.")
    hidden: int = Field(128, ge=8, le=2048, description="Hidden width of both networks.")
    batch: int = Field(128, ge=2, le=8192, description="Minibatch size.")
    lr: float = Field(1e-3, gt=0, le=1, description="Adam learning rate.")
    clip: float = Field(
        10.0, gt=0, le=1000, description="Importance-weight clip (off-policy only)."
    )
    eval_every: int = Field(
        100, ge=1, le=100_000, description="Log the error vs exact every k updates."
    )


def learn_characteristic(
    task: ExplanationTask, cfg, off_policy: bool, gen: torch.Generator, ctx: RunContext
) -> CharFn:
    """The characteristic the Shapley model explains: exact if the task gives it, else learned."""
    if task.has_exact_characteristic:
        return task.characteristic
    idx = task.off_idx if off_policy else task.buffer_idx
    states, targets = task.states_tensor(idx), torch.as_tensor(task.f[idx])
    weights = None
    if off_policy:
        tgt = torch.as_tensor(task.target_logp[idx, task.off_actions])
        weights = importance_weights(tgt, torch.as_tensor(task.off_logp), cfg.clip)
    model = CharacteristicModel(task.d, task.out_dim, cfg.hidden)

    def cb(step: int, loss: float) -> None:
        if step % cfg.eval_every == 0:
            task.check_cancelled()
            ctx.log_metrics(step, char_loss=loss)

    train_characteristic(
        model,
        states,
        targets,
        cfg.char_updates,
        cfg.batch,
        cfg.lr,
        weights=_per_sample(weights, len(idx)),
        gen=gen,
        callback=cb,
    )
    model.eval()

    def char(s: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return model(s, m)

    return char


def _per_sample(weights: torch.Tensor | None, n: int) -> torch.Tensor | None:
    return None if weights is None else weights.reshape(n)


@register_method
class FastSVERLMethod(SverlMethod):
    name = "sverl-fastsverl"
    title = "FastSVERL"
    description = "Learned characteristic + FastSHAP-style Shapley model (on-policy experience)."
    Config = FastSVERLConfig
    off_policy = False

    def explain(self, task: ExplanationTask, ctx: RunContext) -> Explainer:
        cfg = self.config
        gen = torch.Generator().manual_seed(ctx.seed)
        char = learn_characteristic(task, cfg, self.off_policy, gen, ctx)
        idx = task.off_idx if self.off_policy else task.buffer_idx
        weights = None
        if self.off_policy:
            tgt = torch.as_tensor(task.target_logp[idx, task.off_actions])
            weights = importance_weights(tgt, torch.as_tensor(task.off_logp), cfg.clip)  # type: ignore[attr-defined]
        est = FastSVERL(
            task.d,
            task.out_dim,
            cfg.hidden,
            cfg.shapley_updates,
            cfg.batch,
            cfg.lr,  # type: ignore[attr-defined]
            seed=ctx.seed,
        )

        def cb(step: int, loss: float) -> None:
            if step % cfg.eval_every == 0 or step == cfg.shapley_updates - 1:  # type: ignore[attr-defined]
                task.check_cancelled()
                ctx.log_metrics(step, shapley_loss=loss)
                task.report(step, est.shapley, "train")

        est.fit(task.states_tensor(idx), char, weights=weights, callback=cb)
        return est.shapley


@register_method
class FastSVERLOffPolicyMethod(FastSVERLMethod):
    name = "sverl-fastsverl-offpolicy"
    title = "FastSVERL (off-policy)"
    description = "FastSVERL trained on a behaviour policy's experience with clipped, self-normalised importance weights."
    off_policy = True
